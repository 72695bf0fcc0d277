#include "CAirgap.h"
