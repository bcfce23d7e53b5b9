"""numlir.graph: graph neural networks on padded graph batches, like Jraph.

``import numlir.graph as jraph`` runs Jraph-style code: ``GraphsTuple``, ``batch``,
``unbatch``, ``pad_with_graphs`` and its masks, segment reductions, and the
``GraphNetwork``, ``GraphConvolution`` and ``GAT`` models, all usable under numlir.jit.
"""

from numlir.graph._graph import (GraphsTuple, batch, get_edge_padding_mask,
                                 get_graph_padding_mask, get_node_padding_mask, pad_with_graphs,
                                 unbatch)
from numlir.graph._models import GAT, GraphConvolution, GraphNetwork
from numlir.graph._segments import (segment_max, segment_mean, segment_min, segment_softmax,
                                    segment_sum)

__all__ = [name for name in dir() if not name.startswith("_")]
