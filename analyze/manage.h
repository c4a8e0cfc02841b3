/* Moved to runs/manage.h (run management); kept so that files still
 * including it by its old path build. Include the new path. */
#include "runs/manage.h"
