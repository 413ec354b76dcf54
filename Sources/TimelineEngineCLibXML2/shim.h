#ifndef TIMELINE_ENGINE_CLIBXML2_SHIM_H
#define TIMELINE_ENGINE_CLIBXML2_SHIM_H

// Debian builds libxml2 with ICU, and <libxml/encoding.h> then includes ICU headers that clash
// with Foundation's own copy of ICU (`_FoundationICU`). Nothing here needs libxml2's ICU
// structures, so the ICU part of its headers is switched off before anything else is included.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>

/// Raises libxml2's element-depth limit (256 without XML_PARSE_HUGE) so that the property-list
/// reader's own, documented limit (512 nested containers, as CoreFoundation) is the one that
/// applies. XML_PARSE_HUGE itself is never used: it would also lift the entity-expansion and
/// text-size limits.
static inline void timeline_xml_set_max_depth(unsigned int depth) {
    if (xmlParserMaxDepth < depth) {
        xmlParserMaxDepth = depth;
    }
}

/// The byte at the parser's current input position, or -1 when there is none. Used from the
/// DOCTYPE callback to see whether an internal subset (`[`) follows.
static inline int timeline_xml_current_byte(xmlParserCtxtPtr ctxt) {
    if (ctxt == NULL || ctxt->input == NULL || ctxt->input->cur == NULL) {
        return -1;
    }
    if (ctxt->input->end != NULL && ctxt->input->cur >= ctxt->input->end) {
        return -1;
    }
    return (int)(*ctxt->input->cur);
}

/// The parser's current line and column (libxml2 counts both from 1).
static inline int timeline_xml_line(xmlParserCtxtPtr ctxt) {
    return (ctxt != NULL && ctxt->input != NULL) ? ctxt->input->line : 0;
}

static inline int timeline_xml_column(xmlParserCtxtPtr ctxt) {
    return (ctxt != NULL && ctxt->input != NULL) ? ctxt->input->col : 0;
}

#endif
