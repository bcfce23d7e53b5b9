"""Semi-supervised node classification on Zachary's karate club with a two-layer GCN.

The club's 34 members and 78 friendships (Zachary, 1977) are embedded below. Only the
instructor (node 0) and the officer (node 33) are labelled; the GCN, written with
numlir.graph, numlir.layers and numlir.optim, predicts which side every other member
joined when the club split::

    .venv/bin/python examples/karate_club_gcn.py
"""

from __future__ import annotations

import numpy as np

import numlir
import numlir.graph as jraph
import numlir.layers as hk
import numlir.numpy as jnp
import numlir.optim as optax

EDGES = [
    (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (0, 6), (0, 7), (0, 8), (0, 10), (0, 11), (0, 12),
    (0, 13), (0, 17), (0, 19), (0, 21), (0, 31), (1, 2), (1, 3), (1, 7), (1, 13), (1, 17),
    (1, 19), (1, 21), (1, 30), (2, 3), (2, 7), (2, 8), (2, 9), (2, 13), (2, 27), (2, 28),
    (2, 32), (3, 7), (3, 12), (3, 13), (4, 6), (4, 10), (5, 6), (5, 10), (5, 16), (6, 16),
    (8, 30), (8, 32), (8, 33), (9, 33), (13, 33), (14, 32), (14, 33), (15, 32), (15, 33),
    (18, 32), (18, 33), (19, 33), (20, 32), (20, 33), (22, 32), (22, 33), (23, 25), (23, 27),
    (23, 29), (23, 32), (23, 33), (24, 25), (24, 27), (24, 31), (25, 31), (26, 29), (26, 33),
    (27, 33), (28, 31), (28, 33), (29, 32), (29, 33), (30, 32), (30, 33), (31, 32), (31, 33),
    (32, 33),
]
# 0: stayed with the instructor (Mr. Hi), 1: followed the officer.
CLUB = np.array([0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 1,
                 1, 1, 1, 1, 1, 1, 1, 1], np.int32)
NUM_NODES = 34
LABELLED = np.array([0, 33])


def karate_club() -> jraph.GraphsTuple:
    """Undirected friendships as edges both ways; node features are one-hot identities."""
    pairs = np.array(EDGES + [(b, a) for a, b in EDGES], np.int32)
    return jraph.GraphsTuple(
        nodes=np.eye(NUM_NODES, dtype=np.float32), edges=None, senders=pairs[:, 0],
        receivers=pairs[:, 1], globals=None, n_node=np.array([NUM_NODES], np.int32),
        n_edge=np.array([len(pairs)], np.int32))


def network(graph: jraph.GraphsTuple):
    graph = jraph.GraphConvolution(lambda n: numlir.nn.relu(hk.Linear(8)(n)),
                                   add_self_edges=True)(graph)
    graph = jraph.GraphConvolution(hk.Linear(2), add_self_edges=True)(graph)
    return graph.nodes


def train(steps: int = 100, seed: int = 0):
    """Trained parameters and the accuracy over all 34 members, per step."""
    graph = karate_club()
    model = hk.without_apply_rng(hk.transform(network))
    params = model.init(numlir.random.PRNGKey(seed), graph)
    opt = optax.adam(1e-2)
    state = opt.init(params)

    def loss(params):
        logits = model.apply(params, graph)[LABELLED]
        return jnp.mean(optax.softmax_cross_entropy_with_integer_labels(logits, CLUB[LABELLED]))

    @numlir.jit
    def step(params, state):
        value, grads = numlir.value_and_grad(loss)(params)
        updates, state = opt.update(grads, state, params)
        return optax.apply_updates(params, updates), state, value

    @numlir.jit
    def accuracy(params):
        return jnp.mean(jnp.argmax(model.apply(params, graph), axis=1) == CLUB)

    history = []
    for _ in range(steps):
        params, state, _ = step(params, state)
        history.append(float(accuracy(params)))
    return params, history


def main() -> None:
    _, history = train()
    print(f"accuracy over all 34 members after {len(history)} steps: {history[-1]:.2f} "
          f"(two labelled: the instructor and the officer)")


if __name__ == "__main__":
    main()
