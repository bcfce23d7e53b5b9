"""numlir.rl: reinforcement-learning building blocks, like RLax.

``import numlir.rl as rlax``: TD errors for single transitions (``td_learning``,
``q_learning``, ``double_q_learning``, ``sarsa``; batch them with vmap), returns over
trajectories (``discounted_returns``, ``lambda_returns``, ``n_step_bootstrapped_returns``,
``td_lambda``), policy losses (``policy_gradient_loss``, ``entropy_loss``,
``clipped_surrogate_pg_loss``) and action distributions (``greedy``, ``epsilon_greedy``,
``softmax``).
"""

from numlir.rl._multistep import (discounted_returns, lambda_returns, n_step_bootstrapped_returns,
                                  td_lambda)
from numlir.rl._policy import (DiscreteDistribution, clipped_surrogate_pg_loss, entropy_loss,
                               epsilon_greedy, greedy, policy_gradient_loss, softmax)
from numlir.rl._value_learning import double_q_learning, q_learning, sarsa, td_learning

__all__ = [name for name in dir() if not name.startswith("_")]
