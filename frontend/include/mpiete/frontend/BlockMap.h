// Forwarding header: the block map moved to basedata/ (kept for code not yet switched).
#pragma once
#include "mpiete/basedata/BlockMap.h"
