// libxml2 (Debian: libxml2-dev), for AirlockWireMockXML: the parser, the tree and XPath 1.0.
#include <libxml/xmlversion.h>
// libxml2's headers would include the system's ICU, whose declarations clash with the toolchain's
// own (_FoundationICU, which Foundation brings); nothing here uses libxml2's ICU converters.
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
