"""bytes.py DIR - writes the JSON inputs of json.test that hold raw bytes."""
import os
import sys

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
files = {
    "utf8.json": b'["\xff"]',
    "overlong.json": b'["\xc0\xaf"]',
    "nul.json": b'[1,\n  2\x00]',
    "bom.json": b'\xef\xbb\xbf[1]',
    "utf8-ok.json": '["Grüße €"]'.encode("utf-8"),
}
for name, data in files.items():
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)
