/* tdbg's shim: the C library functions clang may call for tt-llk and tt-metal code built with
   -nostdlib (struct copies, std::fill, std::copy of overlapping ranges: ttnn's reshape writer),
   written as plain loops. */
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

void *memmove(void *dest, const void *src, size_t count)
{
    unsigned char *d = dest;
    const unsigned char *s = src;
    if (d < s)
        while (count--)
            *d++ = *s++;
    else
        while (count--)
            d[count] = s[count];
    return dest;
}
