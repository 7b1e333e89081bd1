/* Test firmware: a watched local whose frame returns (GDB deletes the watchpoint). */
volatile int sink;

__attribute__((noinline)) int accumulate(int n)
{
    volatile int total = 0;    /* volatile: kept on the stack, so it can be watched */
    for (int i = 0; i < n; i++)
        total += i;
    return total;
}

int main(void)
{
    sink = accumulate(4);
    sink += accumulate(3);
    return 0;
}
