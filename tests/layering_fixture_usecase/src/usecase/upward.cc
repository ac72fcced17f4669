// A use case that includes the CLI on purpose: the check must reject it.
#include "cli/flags.h"
