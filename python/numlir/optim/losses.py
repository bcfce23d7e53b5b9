"""The losses of numlir.optim under their optax.losses names."""

from numlir.optim._losses import (huber_loss, l2_loss, sigmoid_binary_cross_entropy,  # noqa: F401
                                  softmax_cross_entropy, softmax_cross_entropy_with_integer_labels)
