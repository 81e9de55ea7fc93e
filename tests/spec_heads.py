"""Drafter configs shared by the speculative-decoding tests."""

# an EAGLE-3 head for Llama-3.1-8B shaped as the published ones are (one Llama layer, 32,000-token draft vocabulary)
EAGLE3_HEAD = {
    "architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama", "hidden_act": "silu", "hidden_size": 4096,
    "intermediate_size": 14336, "max_position_embeddings": 2048, "num_attention_heads": 32, "num_key_value_heads": 8,
    "num_hidden_layers": 1, "rms_norm_eps": 1e-05, "tie_word_embeddings": False, "torch_dtype": "float16",
    "vocab_size": 128256, "draft_vocab_size": 32000,
}
