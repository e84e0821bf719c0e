/* ptrmap.h - a small open-addressing hash map from pointers to pointers (MLIR handles are one-pointer
 * structs, so values, ops and blocks are keyed by their .ptr). */
#ifndef LATCH_SUPPORT_PTRMAP_H
#define LATCH_SUPPORT_PTRMAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct latch_ptrmap {
  const void **keys;
  void **values;
  size_t capacity, count;
} latch_ptrmap;

/* Returns false when out of memory. Release with latch_ptrmap_deinitialize. */
bool latch_ptrmap_initialize(latch_ptrmap *map);
void latch_ptrmap_deinitialize(latch_ptrmap *map);
/* The value stored for `key` (non-null), or NULL. */
void *latch_ptrmap_get(const latch_ptrmap *map, const void *key);
/* Stores or replaces; returns false when out of memory. */
bool latch_ptrmap_put(latch_ptrmap *map, const void *key, void *value);

#endif
