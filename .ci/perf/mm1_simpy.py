"""M/M/1 at rho = 0.9 in SimPy, the reference for .ci/perf-core.

Poisson arrivals at 0.9/s, one server (a Resource of capacity 1), exponential service
of mean 1 s, N customers. Prints one line of key=value pairs: the events SimPy
processed, the wall time, events/s and customers/s, and the mean wait (a sanity check:
theory says 9 s).

The timed run is SimPy's own `env.run()`. Until 2026-12-04 the script timed a loop of
`env.peek()` and `env.step()` written here to count the events as they went: that loop
costs SimPy about a fifth more time than `env.run()` (measured: 2.67-2.93 s against
3.27-3.38 s for 300,000 customers), so every ratio against SimPy was that much too
kind to the core. The events are now counted in a second run of the same model, not
timed.
"""
import random
import sys
import time

import simpy


def model(n):
    """The M/M/1 model with n customers, ready to run: (environment, waits)."""
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
    return env, waits


def count_events(n):
    """The events a run of the model processes, counted step by step (not timed)."""
    env, _ = model(n)
    events = 0
    step, peek = env.step, env.peek
    while peek() != float("inf"):
        step()
        events += 1
    return events


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    env, waits = model(n)
    start = time.perf_counter()
    env.run()
    wall = time.perf_counter() - start
    events = count_events(n)
    print(
        f"simpy={simpy.__version__} customers={n} events={events} wall_s={wall:.3f} "
        f"events_per_s={events / wall:.0f} customers_per_s={n / wall:.0f} "
        f"mean_wait_s={waits[0] / waits[1]:.3f}"
    )


if __name__ == "__main__":
    main()
