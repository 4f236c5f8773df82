/* bcryptprimitives.dll for Wine 8.0 (Debian 12), which lacks it: Rust's
 * standard library for Windows imports ProcessPrng from it (Wine has it
 * from 8.13 on). ProcessPrng fills the buffer from the system's
 * cryptographic generator (RtlGenRandom, advapi32's SystemFunction036)
 * and returns TRUE, or FALSE where the generator fails. Built and placed
 * in the prefix's system32 by wine-run.sh. */
#include <windows.h>
#include <ntsecapi.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        /* RtlGenRandom takes a ULONG length. */
        ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!RtlGenRandom(data, n)) {
            return FALSE;
        }
        data += n;
        len -= n;
    }
    return TRUE;
}
