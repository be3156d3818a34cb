/* A recursive-descent JSON parser (RFC 8259) into one tree: every node and string
 * lives in one arena so that json_free is one walk over a chunk list. */
#include "json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct chunk {
  struct chunk *next;
  size_t used, size;
  max_align_t data[];
} chunk;

typedef struct {
  const char *p, *start, *end;
  chunk *chunks;
  char *err;
  size_t err_size;
  int failed;
} parser;

/* The arena root: the tree's first node is placed just after it. */
typedef struct {
  chunk *chunks;
  json root;
} arena_root;

static void *alloc(parser *ps, size_t n) {
  n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
  chunk *c = ps->chunks;
  if (!c || c->used + n > c->size) {
    size_t size = n > (1u << 20) ? n : (1u << 20);
    c = malloc(sizeof(chunk) + size);
    if (!c) return NULL;
    c->next = ps->chunks;
    c->used = 0;
    c->size = size;
    ps->chunks = c;
  }
  void *out = (char *)c->data + c->used;
  c->used += n;
  return out;
}

static void error(parser *ps, const char *what) {
  if (!ps->failed)
    snprintf(ps->err, ps->err_size, "%s at offset %zu", what, (size_t)(ps->p - ps->start));
  ps->failed = 1;
}

static void skip_space(parser *ps) {
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t'))
    ps->p++;
}

static int hex4(const char *s, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = s[i];
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f')
      v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v |= (unsigned)(c - 'A' + 10);
    else
      return 0;
  }
  *out = v;
  return 1;
}

static size_t put_utf8(char *out, unsigned cp) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xC0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (char)(0xE0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | (cp >> 18));
  out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  out[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* A string starting at the opening quote; its decoded bytes, never longer than the
 * escaped text. */
static char *parse_string(parser *ps, size_t *len) {
  const char *s = ++ps->p;
  const char *q = s;
  while (q < ps->end && *q != '"') q += (*q == '\\') ? 2 : 1;
  if (q >= ps->end) {
    error(ps, "unterminated string");
    return NULL;
  }
  char *out = alloc(ps, (size_t)(q - s) + 1);
  if (!out) {
    error(ps, "out of memory");
    return NULL;
  }
  size_t n = 0;
  while (ps->p < q) {
    char c = *ps->p++;
    if ((unsigned char)c < 0x20) {
      error(ps, "control character in a string");
      return NULL;
    }
    if (c != '\\') {
      out[n++] = c;
      continue;
    }
    c = *ps->p++;
    switch (c) {
      case '"':
        out[n++] = '"';
        break;
      case '\\':
        out[n++] = '\\';
        break;
      case '/':
        out[n++] = '/';
        break;
      case 'b':
        out[n++] = '\b';
        break;
      case 'f':
        out[n++] = '\f';
        break;
      case 'n':
        out[n++] = '\n';
        break;
      case 'r':
        out[n++] = '\r';
        break;
      case 't':
        out[n++] = '\t';
        break;
      case 'u': {
        unsigned cp, lo;
        if (q - ps->p < 4 || !hex4(ps->p, &cp)) {
          error(ps, "bad \\u escape");
          return NULL;
        }
        ps->p += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && q - ps->p >= 6 && ps->p[0] == '\\' && ps->p[1] == 'u' &&
            hex4(ps->p + 2, &lo) && lo >= 0xDC00 && lo < 0xE000) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          ps->p += 6;
        }
        n += put_utf8(out + n, cp); /* at most 4 bytes from at least 6 of text */
        break;
      }
      default:
        error(ps, "bad escape");
        return NULL;
    }
  }
  ps->p = q + 1;
  out[n] = '\0';
  *len = n;
  return out;
}

static json *parse_value(parser *ps, int depth);

/* Items (and keys) are collected in a growing heap list, then copied into the
 * arena once their count is known. */
static json *parse_container(parser *ps, int depth, int object) {
  json *node = alloc(ps, sizeof(json));
  if (!node) return NULL;
  memset(node, 0, sizeof *node);
  node->kind = object ? JSON_OBJECT : JSON_ARRAY;
  char close = object ? '}' : ']';
  size_t cap = 0, n = 0;
  json **items = NULL;
  const char **keys = NULL;
  ps->p++;
  skip_space(ps);
  if (ps->p < ps->end && *ps->p == close) {
    ps->p++;
    return node;
  }
  for (;;) {
    const char *key = NULL;
    skip_space(ps);
    if (object) {
      size_t klen;
      if (ps->p >= ps->end || *ps->p != '"' || !(key = parse_string(ps, &klen))) {
        error(ps, "expected a member name");
        break;
      }
      skip_space(ps);
      if (ps->p >= ps->end || *ps->p != ':') {
        error(ps, "expected ':'");
        break;
      }
      ps->p++;
    }
    json *value = parse_value(ps, depth + 1);
    if (!value) break;
    if (n == cap) {
      cap = cap ? 2 * cap : 8;
      json **grown = realloc(items, cap * sizeof *items);
      const char **grown_keys = object ? realloc(keys, cap * sizeof *keys) : NULL;
      if (grown) items = grown;
      if (grown_keys) keys = grown_keys;
      if (!grown || (object && !grown_keys)) {
        error(ps, "out of memory");
        break;
      }
    }
    items[n] = value;
    if (object) keys[n] = key;
    n++;
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == ',') {
      ps->p++;
      continue;
    }
    if (ps->p < ps->end && *ps->p == close) {
      ps->p++;
      node->count = n;
      node->items = alloc(ps, n * sizeof *items);
      node->keys = object ? alloc(ps, n * sizeof *keys) : NULL;
      if (node->items) memcpy(node->items, items, n * sizeof *items);
      if (node->keys) memcpy(node->keys, keys, n * sizeof *keys);
      if (!node->items || (object && !node->keys)) error(ps, "out of memory");
      free(items);
      free(keys);
      return ps->failed ? NULL : node;
    }
    error(ps, object ? "expected ',' or '}'" : "expected ',' or ']'");
    break;
  }
  free(items);
  free(keys);
  return NULL;
}

static json *parse_value(parser *ps, int depth) {
  skip_space(ps);
  if (depth > 64) {
    error(ps, "nested too deeply");
    return NULL;
  }
  if (ps->p >= ps->end) {
    error(ps, "unexpected end");
    return NULL;
  }
  char c = *ps->p;
  if (c == '{' || c == '[') return parse_container(ps, depth, c == '{');
  json *node = alloc(ps, sizeof(json));
  if (!node) {
    error(ps, "out of memory");
    return NULL;
  }
  memset(node, 0, sizeof *node);
  if (c == '"') {
    node->kind = JSON_STRING;
    node->text = parse_string(ps, &node->text_len);
    return node->text ? node : NULL;
  }
  static const struct {
    const char *word;
    json_kind kind;
    int boolean;
  } words[] = {{"null", JSON_NULL, 0}, {"true", JSON_BOOL, 1}, {"false", JSON_BOOL, 0}};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
    size_t n = strlen(words[i].word);
    if ((size_t)(ps->end - ps->p) >= n && memcmp(ps->p, words[i].word, n) == 0) {
      ps->p += n;
      node->kind = words[i].kind;
      node->boolean = words[i].boolean;
      return node;
    }
  }
  const char *s = ps->p;
  while (ps->p < ps->end && strchr("+-0123456789.eE", *ps->p)) ps->p++;
  if (ps->p == s) {
    error(ps, "unexpected character");
    return NULL;
  }
  char *text = alloc(ps, (size_t)(ps->p - s) + 1);
  if (!text) {
    error(ps, "out of memory");
    return NULL;
  }
  memcpy(text, s, (size_t)(ps->p - s));
  text[ps->p - s] = '\0';
  node->kind = JSON_NUMBER;
  node->text = text;
  node->text_len = (size_t)(ps->p - s);
  return node;
}

json *json_parse(const char *text, size_t length, char *err, size_t err_size) {
  parser ps = {text, text, text + length, NULL, err, err_size, 0};
  arena_root *root = alloc(&ps, sizeof(arena_root));
  if (!root) {
    snprintf(err, err_size, "out of memory");
    return NULL;
  }
  json *value = parse_value(&ps, 0);
  skip_space(&ps);
  if (value && ps.p != ps.end) error(&ps, "text after the document");
  if (!value || ps.failed) {
    root->chunks = ps.chunks;
    json_free(&root->root);
    return NULL;
  }
  root->root = *value;
  root->chunks = ps.chunks;
  return &root->root;
}

void json_free(json *root) {
  if (!root) return;
  arena_root *r = (arena_root *)((char *)root - offsetof(arena_root, root));
  for (chunk *c = r->chunks, *next; c; c = next) {
    next = c->next;
    free(c);
  }
}

const json *json_get(const json *object, const char *key) {
  if (!object || object->kind != JSON_OBJECT) return NULL;
  for (size_t i = 0; i < object->count; i++)
    if (strcmp(object->keys[i], key) == 0) return object->items[i];
  return NULL;
}

int json_to_i64(const json *v, int64_t *out) {
  if (!v || (v->kind != JSON_NUMBER && v->kind != JSON_STRING)) return 0;
  char *end;
  errno = 0;
  long long x = strtoll(v->text, &end, 10);
  if (errno || end == v->text || *end) return 0;
  *out = x;
  return 1;
}

int json_to_u64(const json *v, uint64_t *out) {
  if (!v || (v->kind != JSON_NUMBER && v->kind != JSON_STRING) || v->text[0] == '-') return 0;
  char *end;
  errno = 0;
  unsigned long long x = strtoull(v->text, &end, 10);
  if (errno || end == v->text || *end) return 0;
  *out = x;
  return 1;
}

int json_to_f64(const json *v, double *out) {
  if (!v || (v->kind != JSON_NUMBER && v->kind != JSON_STRING)) return 0;
  char *end;
  double x = strtod(v->text, &end);
  if (end == v->text || *end) return 0;
  *out = x;
  return 1;
}

double json_number(const json *object, const char *key, double fallback) {
  double x;
  return json_to_f64(json_get(object, key), &x) ? x : fallback;
}

int64_t json_int(const json *object, const char *key, int64_t fallback) {
  int64_t x;
  return json_to_i64(json_get(object, key), &x) ? x : fallback;
}

const char *json_string(const json *object, const char *key) {
  const json *v = json_get(object, key);
  return v && v->kind == JSON_STRING ? v->text : NULL;
}

int json_bool(const json *object, const char *key, int fallback) {
  const json *v = json_get(object, key);
  return v && v->kind == JSON_BOOL ? v->boolean : fallback;
}
