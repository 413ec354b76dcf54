/*
 * The TimelineEngine strategy plugin ABI, version 1.
 *
 * A plugin is a shared library that exports the five functions declared at the end of this
 * file with C linkage. The engine loads it with dlopen, checks timeline_plugin_abi_version()
 * before calling anything else, reads timeline_plugin_describe(), and registers the strategies
 * it describes beside the built-ins. Nothing but C types crosses the boundary, so a plugin may be
 * written in C, in Swift (@_cdecl) or in any language that exports C functions, and needs no
 * Swift module of the engine. docs/PLUGINS.md is the guide.
 *
 * Strings are UTF-8, given as bytes and a length, and are not NUL-terminated unless said so.
 * Everything the engine passes in is read-only and valid only for the duration of the call.
 * timeline_plugin_propose() may be called from several threads at once, on one instance or on
 * several: it must not modify shared state without synchronising.
 */
#ifndef TIMELINE_PLUGIN_H
#define TIMELINE_PLUGIN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version this header describes. A plugin returns it from timeline_plugin_abi_version(). */
#define TIMELINE_PLUGIN_ABI_VERSION 1

/* A string: `length` bytes of UTF-8 at `bytes` (NULL with length 0 for "none"). */
typedef struct timeline_plugin_string {
    const char *bytes;
    int64_t length;
} timeline_plugin_string;

/*
 * A read-only, columnar view of the timeline being restored, in display order (index 0 at the
 * top). Built once per timeline and shared by every restore on it; nothing is copied per call.
 */
typedef struct timeline_plugin_timeline {
    int64_t count;
    /* Post i's id is id_bytes[id_offsets[i] ..< id_offsets[i + 1]]; count + 1 offsets. */
    const char *id_bytes;
    const int64_t *id_offsets;
    /* Post i's author, likewise; an empty range means no author. */
    const char *author_bytes;
    const int64_t *author_offsets;
    /* Post i's creation time, in seconds since 1970-01-01T00:00:00Z. */
    const double *created_at;
    /* Post i's height in points, as the engine lays it out (estimated when unknown). */
    const double *heights;
    /* The y of post i's top edge; tops[count] is the content height. count + 1 values. */
    const double *tops;
    /* The display indexes ordered by (created_at, index): binary search by time. */
    const int32_t *time_order;
    double viewport_height;

    /* Opaque; pass it back to the functions below. */
    const void *context;
    /* The display index of the post with this id, or -1. O(1) after the first few lookups. */
    int64_t (*index_of)(const void *context, const char *id, int64_t length);
    /*
     * Post `index`'s text: copies at most `capacity` bytes to `buffer` and returns the text's
     * full length in bytes (call again with a larger buffer when it is larger), or -1 when the
     * post has no text. Texts are only read on demand.
     */
    int64_t (*text)(const void *context, int64_t index, char *buffer, int64_t capacity);
} timeline_plugin_timeline;

/* The saved position being restored (see docs/TIMELINE_FORMATS.md, "Positions"). */
typedef struct timeline_plugin_snapshot {
    timeline_plugin_string post_id;
    int32_t has_post_created_at;
    double post_created_at;          /* seconds since 1970, when has_post_created_at */
    double viewport_y;
    double content_offset;
    int64_t index;                   /* the saved display index, or -1 */
    int64_t timeline_count;          /* how many posts the timeline had, or -1 */
    timeline_plugin_string text;     /* the saved post's text, or none */
    timeline_plugin_string author;   /* the saved post's author, or none */
    const timeline_plugin_string *neighbors_above;   /* nearest first */
    int64_t neighbors_above_count;
    const timeline_plugin_string *neighbors_below;   /* nearest first */
    int64_t neighbors_below_count;
} timeline_plugin_snapshot;

/* One restore: the timeline and the saved position (NULL when there is none). */
typedef struct timeline_plugin_request {
    const timeline_plugin_timeline *timeline;
    const timeline_plugin_snapshot *snapshot;
} timeline_plugin_request;

/* Where the positioning stage puts a chosen post. */
enum {
    /* The post stands in for the saved one: it takes the saved viewport_y. */
    TIMELINE_PLUGIN_PLACEMENT_STAND_IN = 0,
    /* The post goes to the top of the viewport. */
    TIMELINE_PLUGIN_PLACEMENT_POST_AT_TOP = 1,
    /* The viewport goes to content_offset (clamped). */
    TIMELINE_PLUGIN_PLACEMENT_CONTENT_OFFSET = 2,
    /* Content offset 0. */
    TIMELINE_PLUGIN_PLACEMENT_TOP_OF_TIMELINE = 3
};

/*
 * A proposal, filled in by timeline_plugin_propose(). The engine provides the method and
 * explanation buffers; write NUL-terminated UTF-8 into them, truncated to their capacity.
 */
typedef struct timeline_plugin_candidate {
    int64_t index;                   /* a display index in [0, count) */
    double confidence;               /* in [0, 1] */
    int32_t placement;               /* TIMELINE_PLUGIN_PLACEMENT_… */
    double content_offset;           /* for TIMELINE_PLUGIN_PLACEMENT_CONTENT_OFFSET */
    char *method;                    /* e.g. "same_author"; empty means the strategy's name */
    int64_t method_capacity;
    char *explanation;               /* one line saying why */
    int64_t explanation_capacity;
} timeline_plugin_candidate;

/* The functions a plugin exports. */

/* TIMELINE_PLUGIN_ABI_VERSION, as the plugin was built against it. Called first. */
uint32_t timeline_plugin_abi_version(void);

/*
 * The strategies the plugin provides, as NUL-terminated JSON that stays valid while the library
 * is loaded:
 *   {"strategies": [{"name": "SameAuthor", "kind": "restoration" | "fallback",
 *                    "summary": "One line.", "parameters": {a JSON Schema object schema},
 *                    "scenarios": [{"name", "posts", "snapshot", "parameters", "expect"}]}]}
 * docs/PLUGINS.md describes every field.
 */
const char *timeline_plugin_describe(void);

/*
 * An instance of strategy `name` (NUL-terminated) with `parameters_json`, a NUL-terminated JSON
 * object already validated against the declared schema, defaults filled in. Returns NULL after
 * writing a NUL-terminated reason (at most `error_capacity` bytes) to `error` when it cannot.
 */
void *timeline_plugin_make(const char *name, const char *parameters_json, char *error, int64_t error_capacity);

/* 1 after filling in `candidate`, 0 when the strategy proposes nothing. */
int32_t timeline_plugin_propose(void *instance, const timeline_plugin_request *request, timeline_plugin_candidate *candidate);

/* Releases an instance made by timeline_plugin_make(). */
void timeline_plugin_free(void *instance);

#ifdef __cplusplus
}
#endif

#endif
