pub mod fat_tools;
#[path = "../../../flashlab/tests/common/skip.rs"]
pub mod skip;
