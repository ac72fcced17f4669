// The CLI may include the use cases.
#include "usecase/targets.h"
