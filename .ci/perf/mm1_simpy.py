"""M/M/1 at rho = 0.9 in SimPy, the reference for .ci/perf-core.

Poisson arrivals at 0.9/s, one server (a Resource of capacity 1), exponential service
of mean 1 s, N customers. Prints one line of key=value pairs: the events SimPy
processed (counted by stepping the environment), the wall time, events/s and
customers/s, and the mean wait (a sanity check: theory says 9 s).
"""
import random
import sys
import time

import simpy


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    rng = random.Random(1)
    env = simpy.Environment()
    server = simpy.Resource(env, capacity=1)
    waits = [0.0, 0]

    def customer(env):
        arrived = env.now
        with server.request() as req:
            yield req
            waits[0] += env.now - arrived
            waits[1] += 1
            yield env.timeout(rng.expovariate(1.0))

    def source(env):
        for _ in range(n):
            yield env.timeout(rng.expovariate(0.9))
            env.process(customer(env))

    env.process(source(env))
    events = 0
    start = time.perf_counter()
    step, peek = env.step, env.peek
    while peek() != float("inf"):
        step()
        events += 1
    wall = time.perf_counter() - start
    print(
        f"simpy={simpy.__version__} customers={n} events={events} wall_s={wall:.3f} "
        f"events_per_s={events / wall:.0f} customers_per_s={n / wall:.0f} "
        f"mean_wait_s={waits[0] / waits[1]:.3f}"
    )


if __name__ == "__main__":
    main()
