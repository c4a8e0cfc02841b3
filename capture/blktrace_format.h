/* Moved to trace/blktrace_format.h (the trace core); kept so that files
 * still including it by its old path build. Include the new path. */
#include "trace/blktrace_format.h"
