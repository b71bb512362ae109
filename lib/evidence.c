/* The evidence classifier: written below. */
#include "internal.h"
