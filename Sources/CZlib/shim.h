// zlib, for reading gzip and deflate bodies (Debian: zlib1g-dev; Apple SDKs ship it).
#include <zlib.h>
