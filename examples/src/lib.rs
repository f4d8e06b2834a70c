//! End-to-end scenarios from the sdrs papers live here as `examples/*.rs` of this package
//! (`cargo run --release -p sdrs-examples --example NAME`). The first, the chain-reach
//! co-design of the SDRS paper (Fig. 10), arrives with the differentiation crate; until then
//! each engine crate keeps its own small examples in `crates/NAME/examples/`.
