/*
 * A strategy plugin in C for the plugin tests, built with clang by the tests themselves. By
 * default it provides TopPost, which proposes the top of the timeline with confidence 0.3. Each
 * -D flag below breaks it in one way the loader must refuse.
 *
 *   -DWRONG_VERSION     reports ABI version 99
 *   -DNO_FREE           does not export timeline_plugin_free
 *   -DBAD_JSON          describes itself in invalid JSON
 *   -DBAD_SCHEMA        declares a parameter schema that does not compile
 *   -DCLASH             calls its strategy ExactMatch, a built-in's name
 *   -DBAD_KIND          declares a kind a plugin cannot provide
 *   -DFAILING_SCENARIO  ships a scenario it does not pass
 *   -DMAKE_FAILS        describes a strategy its make refuses to make
 *   -DLOCAL_REF         declares its parameter through a local $ref into its own $defs (valid)
 *   -DHANGS             never returns from propose
 *   -DMARKS_LOAD        writes the file named by $PLUGIN_MARK as soon as it is loaded
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "timeline_plugin.h"

#ifdef MARKS_LOAD
/* Code that runs at dlopen, before any check: what loading a library means. */
__attribute__((constructor)) static void mark_load(void) {
    const char *path = getenv("PLUGIN_MARK");
    FILE *file = path ? fopen(path, "w") : NULL;
    if (file) { fputs("loaded\n", file); fclose(file); }
}
#endif

#ifdef WRONG_VERSION
uint32_t timeline_plugin_abi_version(void) { return 99; }
#else
uint32_t timeline_plugin_abi_version(void) { return TIMELINE_PLUGIN_ABI_VERSION; }
#endif

#if defined(CLASH)
#define NAME "ExactMatch"
#else
#define NAME "TopPost"
#endif

#if defined(BAD_KIND)
#define KIND "cache"
#else
#define KIND "restoration"
#endif

#if defined(LOCAL_REF)
#define PARAMETERS "{\"type\": \"object\", \"$defs\": {\"level\": {\"type\": \"number\", \"minimum\": 0, \"maximum\": 1}}, " \
                   "\"properties\": {\"Level\": {\"description\": \"The confidence it answers with.\", \"$ref\": \"#/$defs/level\", \"default\": 0.3}}}"
#elif defined(BAD_SCHEMA)
#define PARAMETERS "{\"type\": \"object\", \"properties\": {\"Level\": {\"type\": \"whole number\"}}}"
#else
#define PARAMETERS "{\"type\": \"object\", \"properties\": {\"Level\": {\"description\": \"The confidence it answers with.\", " \
                   "\"type\": \"number\", \"minimum\": 0, \"maximum\": 1, \"default\": 0.3}}}"
#endif

#if defined(FAILING_SCENARIO)
#define EXPECTED "p1"
#else
#define EXPECTED "p0"
#endif

const char *timeline_plugin_describe(void) {
#ifdef BAD_JSON
    return "{\"strategies\": [{\"name\": \"TopPost\",";
#else
    return "{\"strategies\": [{\"name\": \"" NAME "\", \"kind\": \"" KIND "\", "
           "\"summary\": \"Proposes the top of the timeline (a test plugin in C).\", "
           "\"parameters\": " PARAMETERS ", "
           "\"scenarios\": [{\"name\": \"the top post\", "
           "\"posts\": [{\"id\": \"p0\", \"createdAt\": \"2023-11-14T22:13:20Z\"}, {\"id\": \"p1\", \"createdAt\": \"2023-11-14T22:12:20Z\"}], "
           "\"snapshot\": {\"postId\": \"gone\"}, "
           "\"expect\": {\"postId\": \"" EXPECTED "\", \"confidence\": 0.3, \"method\": \"top_post\", \"placement\": \"postAtTop\", "
           "\"explanation\": \"the top of 2 posts\"}}]}]}";
#endif
}

typedef struct { double level; } top_post;

void *timeline_plugin_make(const char *name, const char *parameters, char *error, int64_t capacity) {
#ifdef MAKE_FAILS
    snprintf(error, (size_t)capacity, "this build cannot make %s", name);
    return NULL;
#endif
    if (strcmp(name, NAME) != 0) {
        snprintf(error, (size_t)capacity, "unknown strategy %s", name);
        return NULL;
    }
    top_post *instance = malloc(sizeof(top_post));
    const char *level = strstr(parameters, "\"Level\":");
    instance->level = level ? atof(level + 8) : 0.3;
    return instance;
}

int32_t timeline_plugin_propose(void *instance, const timeline_plugin_request *request, timeline_plugin_candidate *candidate) {
#ifdef HANGS
    for (;;) sleep(1);
#endif
    if (request->timeline->count == 0) return 0;
    candidate->index = 0;
    candidate->confidence = ((top_post *)instance)->level;
    candidate->placement = TIMELINE_PLUGIN_PLACEMENT_POST_AT_TOP;
    snprintf(candidate->method, (size_t)candidate->method_capacity, "top_post");
    snprintf(candidate->explanation, (size_t)candidate->explanation_capacity, "the top of %lld posts", (long long)request->timeline->count);
    return 1;
}

#ifndef NO_FREE
void timeline_plugin_free(void *instance) { free(instance); }
#endif
