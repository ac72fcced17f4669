// A file that breaks the layering on purpose: the check must reject it.
#include "cli/commands.h"
