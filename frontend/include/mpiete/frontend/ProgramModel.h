// Forwarding header: the program model moved to basedata/ (kept for code not yet switched).
#pragma once
#include "mpiete/basedata/ProgramModel.h"
