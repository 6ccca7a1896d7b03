"""Pieces of ``bench/peer/peer_trl.py``: one GRPO workload run by coevo and by TRL's GRPOTrainer.

``workload`` defines what both sides do (model folder, prompts, reward, hyper-parameters),
``coevo_side`` and ``trl_side`` run it and time every optimizer step, ``flops`` turns token
counts into model FLOPs and measures the machine's matmul peak, ``report`` prints the table.
"""
