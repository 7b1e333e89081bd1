/* tdbg's shim: the two C library functions clang may call for tt-llk code built with -nostdlib
   (struct copies and std::fill), written as plain loops. */
typedef __SIZE_TYPE__ size_t;

void *memset(void *dest, int byte, size_t count)
{
    unsigned char *d = dest;
    while (count--)
        *d++ = (unsigned char)byte;
    return dest;
}

void *memcpy(void *dest, const void *src, size_t count)
{
    unsigned char *d = dest;
    const unsigned char *s = src;
    while (count--)
        *d++ = *s++;
    return dest;
}
