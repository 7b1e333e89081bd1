/* Test firmware: info scope's block order (tests/test_gdb_commands.py): a lexical block's locals
   (GDB lists them by hash bucket), an inlined template call whose block holds its own function
   symbol, and inlined locals clang leaves optimized out in the abstract origin only. */
volatile int sink;

namespace ns {
template <int K>
static inline __attribute__((always_inline)) int scale(int v, int k)
{
    int t = v * k * K;
    {
        int u = t + 3, maxX = u ^ 1, a__b = maxX + 2, _hidden = a__b * 3, q1 = 4, q2 = 5, q3 = 6;
        sink = u + maxX + a__b + _hidden + q1 + q2 + q3;
        t += u;
    }
    return t;
}
}  // namespace ns

extern "C" int main()
{
    int acc = 0;
    for (int i = 0; i < 4; i++) {
        int w = ns::scale<2>(i, sink);
        volatile int alpha = w, beta = 2, gamma = 3, delta = 4, epsilon = 5, zeta = 6, eta = 7, theta = 8,
                     iota = 9, kappa = 10, lambda = 11;
        acc += w + alpha + beta + gamma + delta + epsilon + zeta + eta + theta + iota + kappa + lambda;
    }
    sink = acc;
    return 0;
}
