/* config.h: found only through -I; needs SCALE from -D. */
#ifndef SCALE
#error "SCALE must be defined with -D"
#endif
#define GREETING "fixture"
