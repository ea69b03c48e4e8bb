// A stand-in for Windows' bcryptprimitives.dll, which Wine 8 lacks and Go's
// runtime (1.22 and later) loads ProcessPrng from at start. It fills the
// buffer from advapi32's RtlGenRandom (SystemFunction036), which Wine has.
// Real Windows 10 and later ship the DLL; this one is only copied into the
// Wine prefix that make test runs the Windows test binaries in.
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buf, ULONG len);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
