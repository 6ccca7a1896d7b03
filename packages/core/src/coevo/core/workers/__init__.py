"""Rollout workers on Ray beside training (``rollout.async.enabled=true``): the actor that plays step
batches (``rollout_worker``) and the trainer-side driver that keeps them busy within the staleness
bound (``async_rollouts``). Their settings are the ``rollout`` group's (``rollout/async_settings.py``)."""
