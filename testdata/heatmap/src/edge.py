# edge.py - the heatmap's edge cases (make_heatmap_fixtures.py)
import functools


def leaf(xs): return sum(x * 2 for x in xs)

def café(n):
    s = "héllo → wörld"; t = len(s) + n
	return leaf(range(t)) + functools.reduce(max, [t, n,
   0])
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
key = lambda v: v[0]; order = sorted([(2, 'b'), (1, 'a')], key=key)
def main():
    return café(3) + fib(5) + util.helper(4)
if __name__ == "__main__":
    main()
