"""The policy-gradient family (GRPO, GiGPO, DAPO, GSPO, CISPO) side by side."""
