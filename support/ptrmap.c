/* ptrmap.c - open addressing with linear probing; the table doubles at half load. */
#include "ptrmap.h"

#include <stdint.h>
#include <stdlib.h>

static size_t slot_of(const void *const *keys, size_t capacity, const void *key) {
  size_t i = (size_t)(((uintptr_t)key >> 4) * 0x9E3779B97F4A7C15ull) & (capacity - 1);
  while (keys[i] && keys[i] != key)
    i = (i + 1) & (capacity - 1);
  return i;
}

static bool allocate(latch_ptrmap *map, size_t capacity) {
  map->keys = calloc(capacity, sizeof(*map->keys));
  map->values = calloc(capacity, sizeof(*map->values));
  map->capacity = capacity;
  map->count = 0;
  if (map->keys && map->values)
    return true;
  free(map->keys);
  free(map->values);
  return false;
}

bool latch_ptrmap_initialize(latch_ptrmap *map) { return allocate(map, 64); }

void latch_ptrmap_deinitialize(latch_ptrmap *map) {
  free(map->keys);
  free(map->values);
  map->keys = NULL;
  map->values = NULL;
  map->capacity = map->count = 0;
}

void *latch_ptrmap_get(const latch_ptrmap *map, const void *key) {
  size_t i = slot_of(map->keys, map->capacity, key);
  return map->keys[i] ? map->values[i] : NULL;
}

bool latch_ptrmap_put(latch_ptrmap *map, const void *key, void *value) {
  if ((map->count + 1) * 2 > map->capacity) {
    latch_ptrmap bigger;
    if (!allocate(&bigger, map->capacity * 2))
      return false;
    for (size_t i = 0; i < map->capacity; ++i)
      if (map->keys[i]) {
        size_t j = slot_of(bigger.keys, bigger.capacity, map->keys[i]);
        bigger.keys[j] = map->keys[i];
        bigger.values[j] = map->values[i];
        bigger.count++;
      }
    latch_ptrmap_deinitialize(map);
    *map = bigger;
  }
  size_t i = slot_of(map->keys, map->capacity, key);
  if (!map->keys[i]) {
    map->keys[i] = key;
    map->count++;
  }
  map->values[i] = value;
  return true;
}
