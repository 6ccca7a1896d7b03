"""The ``search`` environment: Search-R1-style multi-turn QA with BM25 or dense retrieval over a
synthetic knowledge base of fictional entities or a FlashRAG corpus."""
