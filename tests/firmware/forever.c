/* Test firmware that never stops: the REPL test interrupts it with Ctrl-C. */
volatile unsigned counter;

int main(void) {
    for (;;) counter++;
}
