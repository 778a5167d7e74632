#ifndef SINGLECAST_CLIBXML2_SHIM_H
#define SINGLECAST_CLIBXML2_SHIM_H

// Debian's libxml2 is built with ICU, and its encoding.h then pulls in the
// system ICU headers, which clash with the ICU module inside Foundation
// (swiftlang/swift#88485). Singlecast never touches the ICU-specific parts of
// xmlCharEncodingHandler, so the ICU switch is turned off before the headers.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/entities.h>
#include <libxml/HTMLparser.h>
#include <libxml/xmlerror.h>
#include <libxml/uri.h>

/// `xmlFree` is a global function pointer, which Swift 6 strict concurrency
/// refuses to read; this wrapper calls it.
static inline void singlecast_xmlFree(void *pointer) {
    xmlFree(pointer);
}

/// libxml2 prints a few errors with its "generic" handler, to stderr, whatever the SAX
/// callbacks say (`xmlParseChunk: encoder error`). That handler is variadic, which Swift
/// cannot write: this one drops what it is given.
static inline void singlecast_dropGenericError(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

/// Drops libxml2's generic errors on this thread (`silenced`), or prints them again.
static inline void singlecast_silenceGenericErrors(int silenced) {
    xmlSetGenericErrorFunc(NULL, silenced ? singlecast_dropGenericError : NULL);
}

#endif
