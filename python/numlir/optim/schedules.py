"""The schedules of numlir.optim under their optax.schedules names."""

from numlir.optim._schedules import (constant_schedule, cosine_decay_schedule,  # noqa: F401
                                     exponential_decay, join_schedules, linear_schedule,
                                     warmup_cosine_decay_schedule,
                                     warmup_exponential_decay_schedule)
