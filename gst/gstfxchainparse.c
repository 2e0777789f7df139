/* gst-fx — fxchain's own parser for the `chain` property.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `chain` is one linear chain, so it is read here rather than handed to GStreamer's
 * gst_parse_bin_from_description(): that parser takes the whole gst-launch language (references,
 * branches, bins, URIs) and crashes on some malformed descriptions, and it sets properties with
 * g_object_set_property(), which clamps or ignores a bad value with only a GLib warning.
 *
 * Grammar (a subset of gst-launch's, with its quoting):
 *   chain   := element ( '!' element )*
 *   element := FACTORY ( PROP '=' VALUE | '@preset=' VALUE )*  |  CAPS
 * FACTORY and PROP are identifiers ([A-Za-z0-9_] then [A-Za-z0-9_-%:]; PROP may be child::prop
 * for a GstChildProxy, as fxeq's band0::gain); VALUE runs to the next whitespace that is neither
 * quoted nor escaped: "..." quotes (its quotes removed), a backslash takes the next character as
 * it is (inside quotes too, so \" and \\). CAPS is a caps string such as audio/x-raw,format=F32LE
 * (a capsfilter; plain audio caps only), up to the next '!'. Whitespace around '!' and '=' is
 * optional. References (name.), brackets and braces are refused: fxchain takes no branches. The
 * description must be valid UTF-8. `@preset=NAME` loads a GstPreset preset of the element, after
 * its properties, as gst_parse_launch() does (the last @preset of an element counts); a name
 * the element does not have is an error.
 *
 * A value is converted with the property's GParamSpec (gst_value_deserialize_with_pspec) and
 * checked against it (g_param_value_validate) before it is set: a value that does not convert, is
 * out of range or names no enum value is an error naming the element, property, value and the
 * valid range or names. */
#include "gstfxchainparse.h"

#include <string.h>

typedef struct {
  gchar *name;
  gchar *value;
} ParsedProp;

typedef struct {
  gchar *factory; /* or NULL for caps */
  gchar *caps;
  GArray *props; /* ParsedProp */
  gchar *preset; /* @preset=NAME, or NULL */
} ParsedElement;

typedef struct {
  const gchar *desc;
  const gchar *p;
  gchar *error;
} Lexer;

static void parsed_element_free(gpointer data)
{
  ParsedElement *pe = data;

  g_free(pe->factory);
  g_free(pe->caps);
  g_free(pe->preset);
  for (guint i = 0; i < pe->props->len; i++) {
    g_free(g_array_index(pe->props, ParsedProp, i).name);
    g_free(g_array_index(pe->props, ParsedProp, i).value);
  }
  g_array_unref(pe->props);
  g_free(pe);
}

/* @s (at most @max bytes) for a message: printable ASCII kept, other bytes as '?', long text
 * shortened with "...". */
static gchar *printable(const gchar *s, gsize len, gsize max)
{
  GString *out = g_string_new(NULL);

  for (gsize i = 0; i < len && i < max; i++)
    g_string_append_c(out, g_ascii_isprint(s[i]) ? s[i] : '?');
  if (len > max)
    g_string_append(out, "...");
  return g_string_free(out, FALSE);
}

/* Sets the syntax error "the chain does not parse at "<text here>": <why>". */
static void syntax_error(Lexer *lx, const gchar *at, const gchar *why)
{
  gchar *snippet = printable(at, strlen(at), 24);

  if (!lx->error)
    lx->error = *at ? g_strdup_printf("the chain does not parse at \"%s\": %s", snippet, why)
                    : g_strdup_printf("the chain does not parse at its end: %s", why);
  g_free(snippet);
}

static gboolean is_space(gchar c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static void skip_space(Lexer *lx)
{
  while (is_space(*lx->p))
    lx->p++;
}

static gboolean ident_first(gchar c)
{
  return g_ascii_isalnum(c) || c == '_';
}

static gboolean ident_char(gchar c)
{
  return g_ascii_isalnum(c) || c == '_' || c == '-' || c == '%' || c == ':';
}

/* Reads an identifier at lx->p (NULL when there is none). */
static gchar *read_ident(Lexer *lx)
{
  const gchar *start = lx->p;

  if (!ident_first(*lx->p))
    return NULL;
  while (ident_char(*lx->p))
    lx->p++;
  return g_strndup(start, lx->p - start);
}

/* Refuses what gst-launch would read as a reference, a bracket or a brace at @at. */
static gboolean refuse_structure(Lexer *lx, const gchar *at)
{
  const gchar *why = NULL;

  switch (*lx->p) {
  case '.':
    why = "references to named elements or pads (name.) are not supported: fxchain takes one "
          "linear chain of elements linked with '!'";
    break;
  case '(':
  case ')':
    why = "brackets (bins) are not supported: fxchain takes one linear chain of elements linked "
          "with '!'";
    break;
  case '{':
  case '}':
    why = "braces are not supported: fxchain takes one linear chain of elements linked with '!'";
    break;
  default:
    return FALSE;
  }
  syntax_error(lx, at, why);
  return TRUE;
}

/* Reads a value: up to the next whitespace outside quotes; quotes removed, backslash escapes. */
static gchar *read_value(Lexer *lx)
{
  GString *v = g_string_new(NULL);
  gboolean quoted = FALSE;
  const gchar *quote_start = NULL;

  while (*lx->p && (quoted || !is_space(*lx->p))) {
    gchar c = *lx->p;
    if (c == '\\') {
      if (lx->p[1] == '\0') {
        lx->p++; /* a trailing backslash escapes nothing */
        break;
      }
      g_string_append_c(v, lx->p[1]);
      lx->p += 2;
      continue;
    }
    if (c == '"') {
      quoted = !quoted;
      if (quoted)
        quote_start = lx->p;
      lx->p++;
      continue;
    }
    g_string_append_c(v, c);
    lx->p++;
  }
  if (quoted) {
    syntax_error(lx, quote_start, "the quote is not closed");
    g_string_free(v, TRUE);
    return NULL;
  }
  return g_string_free(v, FALSE);
}

/* Reads a caps string (mime/type,field=value,...) up to the next '!' or the end. */
static gchar *read_caps(Lexer *lx)
{
  const gchar *start = lx->p;
  const gchar *end;

  while (*lx->p && *lx->p != '!')
    lx->p++;
  end = lx->p;
  while (end > start && is_space(end[-1]))
    end--;
  return g_strndup(start, end - start);
}

/* One element at lx->p (whitespace skipped). */
static ParsedElement *read_element(Lexer *lx)
{
  const gchar *at = lx->p;
  ParsedElement *pe;
  gchar *ident;

  if (*lx->p == '\0') {
    syntax_error(lx, lx->p, "an element is missing after '!'");
    return NULL;
  }
  if (*lx->p == '!') {
    syntax_error(lx, lx->p, "an element is missing before this '!'");
    return NULL;
  }
  if (refuse_structure(lx, at))
    return NULL;
  ident = read_ident(lx);
  if (!ident) {
    syntax_error(lx, at, "expected an element name");
    return NULL;
  }
  pe = g_new0(ParsedElement, 1);
  pe->props = g_array_new(FALSE, FALSE, sizeof(ParsedProp));
  if (*lx->p == '/') {
    /* caps: the identifier was the media type's first half */
    gchar *rest;
    lx->p = at;
    rest = read_caps(lx);
    pe->caps = rest;
    g_free(ident);
    return pe;
  }
  pe->factory = ident;
  if (refuse_structure(lx, at))
    goto fail;

  for (;;) {
    const gchar *prop_at;
    ParsedProp prop;

    skip_space(lx);
    if (*lx->p == '\0' || *lx->p == '!')
      return pe;
    prop_at = lx->p;
    if (refuse_structure(lx, prop_at))
      goto fail;
    if (*lx->p == '@') {
      gchar *word;
      lx->p++;
      word = read_ident(lx);
      skip_space(lx);
      if (g_strcmp0(word, "preset") != 0 || *lx->p != '=') {
        syntax_error(lx, prop_at, "'@' starts a preset, written @preset=NAME");
        g_free(word);
        goto fail;
      }
      g_free(word);
      lx->p++;
      skip_space(lx);
      if (*lx->p == '\0' || *lx->p == '!') {
        syntax_error(lx, prop_at, "@preset has no name (write @preset=NAME)");
        goto fail;
      }
      g_free(pe->preset);
      if (!(pe->preset = read_value(lx)))
        goto fail;
      continue;
    }
    prop.name = read_ident(lx);
    if (!prop.name) {
      syntax_error(lx, prop_at, "expected a property (name=value), '!' or the end");
      goto fail;
    }
    if (refuse_structure(lx, prop_at)) {
      g_free(prop.name);
      goto fail;
    }
    skip_space(lx);
    if (*lx->p != '=') {
      gchar *msg = g_strdup_printf(
          "'%s' follows '%s' without '!' between them: the elements must form one linear chain, "
          "linked with '!' (a property is written name=value)",
          prop.name, pe->factory);
      syntax_error(lx, prop_at, msg);
      g_free(msg);
      g_free(prop.name);
      goto fail;
    }
    lx->p++;
    skip_space(lx);
    if (*lx->p == '\0' || *lx->p == '!') {
      syntax_error(lx, prop_at, "the property has no value (write name=value, \"\" for empty)");
      g_free(prop.name);
      goto fail;
    }
    prop.value = read_value(lx);
    if (!prop.value) {
      g_free(prop.name);
      goto fail;
    }
    g_array_append_val(pe->props, prop);
  }

fail:
  parsed_element_free(pe);
  return NULL;
}

/* ---- Values ---- */

static gchar *nicks(GParamSpec *pspec)
{
  GString *s = g_string_new(NULL);

  if (G_IS_PARAM_SPEC_ENUM(pspec)) {
    GEnumClass *k = G_PARAM_SPEC_ENUM(pspec)->enum_class;
    for (guint i = 0; i < k->n_values; i++)
      g_string_append_printf(s, "%s%s", i ? ", " : "", k->values[i].value_nick);
  } else {
    GFlagsClass *k = G_PARAM_SPEC_FLAGS(pspec)->flags_class;
    for (guint i = 0; i < k->n_values; i++)
      g_string_append_printf(s, "%s%s", i ? ", " : "", k->values[i].value_nick);
  }
  return g_string_free(s, FALSE);
}

/* A floating-point range as a user reads it: the type's smallest positive value as a minimum
 * means "more than 0", its largest as a bound means no bound. */
static gchar *real_range(double min, double max, double tiny, double huge)
{
  gboolean above_zero = min == tiny, no_min = min <= -huge, no_max = max >= huge;

  if (above_zero && no_max)
    return g_strdup("(0, inf)");
  if (above_zero)
    return g_strdup_printf("(0, %g]", max);
  if (no_min && no_max)
    return g_strdup("(-inf, inf)");
  if (no_min)
    return g_strdup_printf("(-inf, %g]", max);
  if (no_max)
    return g_strdup_printf("[%g, inf)", min);
  return g_strdup_printf("[%g, %g]", min, max);
}

/* "[min, max]" for a numeric property, NULL for other types. */
static gchar *numeric_range(GParamSpec *p)
{
  if (G_IS_PARAM_SPEC_INT(p))
    return g_strdup_printf("[%d, %d]", G_PARAM_SPEC_INT(p)->minimum, G_PARAM_SPEC_INT(p)->maximum);
  if (G_IS_PARAM_SPEC_UINT(p))
    return g_strdup_printf("[%u, %u]", G_PARAM_SPEC_UINT(p)->minimum,
                           G_PARAM_SPEC_UINT(p)->maximum);
  if (G_IS_PARAM_SPEC_LONG(p))
    return g_strdup_printf("[%ld, %ld]", G_PARAM_SPEC_LONG(p)->minimum,
                           G_PARAM_SPEC_LONG(p)->maximum);
  if (G_IS_PARAM_SPEC_ULONG(p))
    return g_strdup_printf("[%lu, %lu]", G_PARAM_SPEC_ULONG(p)->minimum,
                           G_PARAM_SPEC_ULONG(p)->maximum);
  if (G_IS_PARAM_SPEC_INT64(p))
    return g_strdup_printf("[%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]",
                           G_PARAM_SPEC_INT64(p)->minimum, G_PARAM_SPEC_INT64(p)->maximum);
  if (G_IS_PARAM_SPEC_UINT64(p))
    return g_strdup_printf("[%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT "]",
                           G_PARAM_SPEC_UINT64(p)->minimum, G_PARAM_SPEC_UINT64(p)->maximum);
  if (G_IS_PARAM_SPEC_FLOAT(p))
    return real_range(G_PARAM_SPEC_FLOAT(p)->minimum, G_PARAM_SPEC_FLOAT(p)->maximum, G_MINFLOAT,
                      G_MAXFLOAT);
  if (G_IS_PARAM_SPEC_DOUBLE(p))
    return real_range(G_PARAM_SPEC_DOUBLE(p)->minimum, G_PARAM_SPEC_DOUBLE(p)->maximum, G_MINDOUBLE,
                      G_MAXDOUBLE);
  if (G_IS_PARAM_SPEC_CHAR(p))
    return g_strdup_printf("[%d, %d]", G_PARAM_SPEC_CHAR(p)->minimum,
                           G_PARAM_SPEC_CHAR(p)->maximum);
  if (G_IS_PARAM_SPEC_UCHAR(p))
    return g_strdup_printf("[%u, %u]", G_PARAM_SPEC_UCHAR(p)->minimum,
                           G_PARAM_SPEC_UCHAR(p)->maximum);
  return NULL;
}

/* Why @value is not valid for @pspec, one line; @converted: it converted but was out of range. */
static gchar *value_error(const gchar *label, GParamSpec *pspec, const gchar *name,
                          const gchar *value, gboolean converted)
{
  gchar *v = printable(value, strlen(value), 60);
  gchar *range = numeric_range(pspec);
  gchar *msg;

  if (range) {
    gboolean integer = !G_IS_PARAM_SPEC_FLOAT(pspec) && !G_IS_PARAM_SPEC_DOUBLE(pspec);
    msg = converted ? g_strdup_printf("%s: %s=%s is out of range %s", label, name, v, range)
                    : g_strdup_printf("%s: %s=%s is not %s (valid range %s)", label, name, v,
                                      integer ? "an integer" : "a number", range);
  } else if (G_IS_PARAM_SPEC_ENUM(pspec) || G_IS_PARAM_SPEC_FLAGS(pspec)) {
    gchar *n = nicks(pspec);
    msg = g_strdup_printf("%s: %s=%s is not %s %s", label, name, v,
                          G_IS_PARAM_SPEC_ENUM(pspec) ? "one of" : "a '+'-separated set of", n);
    g_free(n);
  } else if (G_IS_PARAM_SPEC_BOOLEAN(pspec)) {
    msg = g_strdup_printf("%s: %s=%s is not a boolean (true or false)", label, name, v);
  } else {
    msg = g_strdup_printf("%s: %s=%s is not a valid %s", label, name, v,
                          g_type_name(pspec->value_type));
  }
  g_free(range);
  g_free(v);
  return msg;
}

/* Converts, checks and sets one property; `child::prop` names a property of a child of a
 * GstChildProxy (fxeq's band0::gain), as in gst-launch. */
static gboolean set_prop(GstElement *e, const gchar *label, const ParsedProp *prop, gchar **error)
{
  GObject *target = NULL;
  GParamSpec *pspec = NULL;
  GValue v = G_VALUE_INIT, check = G_VALUE_INIT;
  gboolean ok = FALSE, clamped;

  if (strstr(prop->name, "::") && GST_IS_CHILD_PROXY(e)) {
    if (!gst_child_proxy_lookup(GST_CHILD_PROXY(e), prop->name, &target, &pspec))
      target = NULL;
  } else {
    pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(e), prop->name);
    target = pspec ? g_object_ref(G_OBJECT(e)) : NULL;
  }
  if (!target || !pspec) {
    *error = g_strdup_printf("%s: no property \"%s\" (gst-inspect-1.0 %s lists them)", label,
                             prop->name, GST_OBJECT_NAME(gst_element_get_factory(e)));
    goto out;
  }
  if (!(pspec->flags & G_PARAM_WRITABLE) || (pspec->flags & G_PARAM_CONSTRUCT_ONLY)) {
    *error = g_strdup_printf("%s: property \"%s\" cannot be set", label, prop->name);
    goto out;
  }
  g_value_init(&v, pspec->value_type);
  if (pspec->value_type == G_TYPE_STRING) {
    /* taken as written (the quotes are already removed) */
    g_value_set_string(&v, prop->value);
    ok = TRUE;
  } else {
    ok = gst_value_deserialize_with_pspec(&v, prop->value, pspec);
  }
  if (!ok) {
    *error = value_error(label, pspec, prop->name, prop->value, FALSE);
    goto out;
  }
  g_value_init(&check, pspec->value_type);
  g_value_copy(&v, &check);
  clamped = g_param_value_validate(pspec, &check);
  g_value_unset(&check);
  if (clamped) {
    *error = value_error(label, pspec, prop->name, prop->value, TRUE);
    ok = FALSE;
    goto out;
  }
  g_object_set_property(target, pspec->name, &v);

out:
  if (G_IS_VALUE(&v))
    g_value_unset(&v);
  if (target)
    g_object_unref(target);
  return ok;
}

/* How messages name an element: its name= if given, else the factory, with its position when the
 * factory occurs more than once (@repeated). */
static gchar *element_label(const ParsedElement *pe, guint index, gboolean repeated)
{
  for (guint i = 0; i < pe->props->len; i++) {
    const ParsedProp *p = &g_array_index(pe->props, ParsedProp, i);
    if (strcmp(p->name, "name") == 0) {
      gchar *n = printable(p->value, strlen(p->value), 40);
      gchar *label = g_strdup_printf("%s \"%s\"", pe->factory, n);
      g_free(n);
      return label;
    }
  }
  if (repeated)
    return g_strdup_printf("%s (element %u of the chain)", pe->factory, index + 1);
  return g_strdup(pe->factory);
}

/* Loads preset @name (the chain's @preset=NAME) into @e. */
static gboolean load_preset(GstElement *e, const gchar *label, const gchar *name, gchar **error)
{
  GstElementFactory *factory = gst_element_get_factory(e);
  const gchar *fname = factory ? GST_OBJECT_NAME(factory) : label;
  gchar *n;

  if (GST_IS_PRESET(e) && gst_preset_load_preset(GST_PRESET(e), name))
    return TRUE;
  n = printable(name, strlen(name), 40);
  if (!GST_IS_PRESET(e))
    *error = g_strdup_printf("%s: @preset=%s: the element has no presets", label, n);
  else
    *error =
        g_strdup_printf("%s: no preset \"%s\" (gst-inspect-1.0 %s lists them)", label, n, fname);
  g_free(n);
  return FALSE;
}

/* gst_caps_from_string() fails with a GLib critical, not an error, on a media type that is not a
 * valid structure name, and warns on 0.10-style names (audio/x-raw-int) and on some quoted
 * values: a caps stage is kept to the plain form checked here, an audio media type and
 * field=value pairs of letters, digits and "/_.:+-" (audio/x-raw,format=F32LE,rate=48000). */
static gboolean caps_plain(const gchar *caps)
{
  if (!g_str_has_prefix(caps, "audio/") || g_str_has_prefix(caps, "audio/x-raw-"))
    return FALSE;
  for (const gchar *c = caps; *c; c++)
    if (!g_ascii_isalnum(*c) && !strchr("/_.:+-,= ", *c))
      return FALSE;
  return TRUE;
}

static GstElement *build_element(const ParsedElement *pe, guint index, gboolean repeated,
                                 gchar **error)
{
  GstElementFactory *factory;
  GstElement *e;
  gchar *label;

  if (pe->caps) {
    GstCaps *caps = caps_plain(pe->caps) ? gst_caps_from_string(pe->caps) : NULL;
    if (!caps) {
      gchar *c = printable(pe->caps, strlen(pe->caps), 60);
      *error = g_strdup_printf("the caps \"%s\" are not plain audio caps (e.g. "
                               "audio/x-raw,format=F32LE,rate=48000)",
                               c);
      g_free(c);
      return NULL;
    }
    e = gst_element_factory_make("capsfilter", NULL);
    if (!e) {
      gst_caps_unref(caps);
      *error = g_strdup("no element \"capsfilter\" (for the caps in the chain)");
      return NULL;
    }
    g_object_set(e, "caps", caps, NULL);
    gst_caps_unref(caps);
    return gst_object_ref_sink(e);
  }

  factory = gst_element_factory_find(pe->factory);
  if (!factory) {
    *error = g_strdup_printf("no element \"%s\" (gst-inspect-1.0 lists the elements)", pe->factory);
    return NULL;
  }
  e = gst_element_factory_create(factory, NULL);
  gst_object_unref(factory);
  if (!e) {
    *error = g_strdup_printf("element \"%s\" could not be created", pe->factory);
    return NULL;
  }
  gst_object_ref_sink(e);
  label = element_label(pe, index, repeated);
  for (guint i = 0; i < pe->props->len; i++) {
    if (!set_prop(e, label, &g_array_index(pe->props, ParsedProp, i), error)) {
      g_free(label);
      gst_object_unref(e);
      return NULL;
    }
  }
  if (pe->preset && !load_preset(e, label, pe->preset, error)) {
    g_free(label);
    gst_object_unref(e);
    return NULL;
  }
  g_free(label);
  return e;
}

GPtrArray *gst_fx_chain_parse(const gchar *desc, gchar **error)
{
  Lexer lx = {desc ? desc : "", desc ? desc : "", NULL};
  GPtrArray *parsed = g_ptr_array_new_with_free_func(parsed_element_free);
  GPtrArray *elements = NULL;
  GHashTable *counts = NULL;
  const gchar *bad = NULL;

  /* Property values reach elements and their messages, which must be UTF-8. */
  if (!g_utf8_validate(lx.desc, -1, &bad)) {
    *error = g_strdup_printf("the chain is not valid UTF-8 (at byte %u)", (guint) (bad - lx.desc));
    g_ptr_array_unref(parsed);
    return NULL;
  }

  /* Syntax first, so that nothing is created for a description that does not parse. */
  skip_space(&lx);
  while (*lx.p) {
    ParsedElement *pe = read_element(&lx);
    if (!pe)
      goto fail;
    g_ptr_array_add(parsed, pe);
    if (parsed->len > GST_FX_CHAIN_MAX_ELEMENTS) {
      lx.error = g_strdup_printf("the chain has more than %d elements (the most fxchain takes)",
                                 GST_FX_CHAIN_MAX_ELEMENTS);
      goto fail;
    }
    skip_space(&lx);
    if (*lx.p == '\0')
      break;
    g_assert(*lx.p == '!');
    lx.p++;
    skip_space(&lx);
    if (*lx.p == '\0') {
      syntax_error(&lx, lx.p, "an element is missing after '!'");
      goto fail;
    }
  }

  /* How often each factory occurs, for the messages. */
  counts = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint i = 0; i < parsed->len; i++) {
    ParsedElement *pe = g_ptr_array_index(parsed, i);
    if (pe->factory)
      g_hash_table_insert(
          counts, pe->factory,
          GUINT_TO_POINTER(GPOINTER_TO_UINT(g_hash_table_lookup(counts, pe->factory)) + 1));
  }
  elements = g_ptr_array_new_with_free_func(gst_object_unref);
  for (guint i = 0; i < parsed->len; i++) {
    ParsedElement *pe = g_ptr_array_index(parsed, i);
    gboolean repeated =
        pe->factory && GPOINTER_TO_UINT(g_hash_table_lookup(counts, pe->factory)) > 1;
    GstElement *e = build_element(pe, i, repeated, &lx.error);
    if (!e)
      goto fail;
    g_ptr_array_add(elements, e);
  }
  g_hash_table_unref(counts);
  g_ptr_array_unref(parsed);
  return elements;

fail:
  if (counts)
    g_hash_table_unref(counts);
  if (elements)
    g_ptr_array_unref(elements);
  g_ptr_array_unref(parsed);
  *error = lx.error ? lx.error : g_strdup("the chain does not parse");
  return NULL;
}
