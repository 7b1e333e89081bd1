/* Test firmware: C types as debug information describes them (structs that refer to themselves,
 * typedefs, enums, unions, typedef'd arrays) for tdbg's type and value printing. */
#include "tensix.h"

typedef struct node node_t;
struct node { int v; node_t *next; };
typedef struct { short a; unsigned char c; } pair_t;
enum mode { OFF, ON = 5 };
union word { uint32_t u; float f; };
typedef uint32_t vec_t[3];

node_t nodes[3] = {{1, &nodes[1]}, {2, &nodes[2]}, {3, 0}};
struct node *head = &nodes[0];
pair_t pair = {-2, 'A'};
enum mode m = ON;
union word w = {0x3F800000u};
vec_t vec = {7, 8, 9};
_Bool flag = 1;

__attribute__((optnone, noinline)) int walk(struct node *n, pair_t *p, float scale)
{
    int total = 0;
    for (; n; n = n->next)
        total += n->v;
    return total + p->a + (int)scale;
}

int main(void)
{
    return walk(head, &pair, 1.5f);
}
