/* tdbg's SFPI stand-in: memmove, which clang may call for std::copy of overlapping ranges (ttnn's
   reshape writer); linked from an archive, so only into the kernels that call it. */
typedef __SIZE_TYPE__ size_t;

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
