// The top may include anything.
#include "store/store.h"
