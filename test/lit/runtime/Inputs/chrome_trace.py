"""chrome_trace.py FILE.json - reads a latch-run trace (Chrome trace-event JSON) and prints its tracks (in
their thread_sort_index order, else by tid) and complete events, ordered by track then time:
'TRACK CAT NAME TS +DUR' (us)."""
import json
import sys

with open(sys.argv[1]) as f:
    doc = json.load(f)
events = doc["traceEvents"]
process = [e for e in events if e["ph"] == "M" and e["name"] == "process_name"]
print("process: %s" % process[0]["args"]["name"])
names = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
order = {e["tid"]: e["args"]["sort_index"] for e in events if e["ph"] == "M" and e["name"] == "thread_sort_index"}
key = lambda tid: (order.get(tid, tid), tid)  # noqa: E731
print("tracks: %s" % ", ".join(names[t] for t in sorted(names, key=key)))
for e in sorted((e for e in events if e["ph"] == "X"), key=lambda e: (key(e["tid"]), e["ts"])):
    print("%s %s %s %.3f +%.3f" % (names[e["tid"]], e["cat"], e["name"], e["ts"], e["dur"]))
