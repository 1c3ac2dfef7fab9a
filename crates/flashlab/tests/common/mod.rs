pub mod fat_tools;
pub mod skip;
