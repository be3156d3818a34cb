/* A small JSON reader for the case index (index.json): the whole document in one
 * tree, read-only once parsed. Numbers keep their text, so that a 64-bit seed or
 * a decimal string reads back exactly. */
#ifndef CONFORMANCE_JSON_H
#define CONFORMANCE_JSON_H

#include <stddef.h>
#include <stdint.h>

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_kind;

typedef struct json json;
struct json {
  json_kind kind;
  int boolean;
  const char *text;  /* a number's text, a string's decoded bytes (NUL-terminated) */
  size_t text_len;   /* a string's length in bytes */
  size_t count;      /* items of an array or members of an object */
  json **items;      /* the items, or the members' values */
  const char **keys; /* the members' names (objects only) */
};

/* Parses `text` (length bytes); NULL with the reason and the offset in err. The
 * tree is freed with json_free. */
json *json_parse(const char *text, size_t length, char *err, size_t err_size);
void json_free(json *root);

/* The member `key` of an object, or NULL (also for a non-object). */
const json *json_get(const json *object, const char *key);
/* A member's value as a number (the fallback when absent or null), a string
 * (NULL when absent), a boolean. */
double json_number(const json *object, const char *key, double fallback);
int64_t json_int(const json *object, const char *key, int64_t fallback);
const char *json_string(const json *object, const char *key);
int json_bool(const json *object, const char *key, int fallback);
/* Whether a value is a number or a decimal string of one, and its value. */
int json_to_i64(const json *value, int64_t *out);
int json_to_u64(const json *value, uint64_t *out);
int json_to_f64(const json *value, double *out);

#endif
