/* The plugin ABI is the header; this file only gives the target a translation unit. */
#include "timeline_plugin.h"

const uint32_t timeline_plugin_header_version = TIMELINE_PLUGIN_ABI_VERSION;
