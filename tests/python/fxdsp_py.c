/* Exports libfxdsp to Python's ctypes for the reference tests (see tests/python/fxdsp.py).
 * The library itself is linked whole; this file only anchors the shared object. */
#include "cascade.h"
#include "design.h"

int fxdsp_py_abi_version(void);

int fxdsp_py_abi_version(void)
{
  return 1;
}
