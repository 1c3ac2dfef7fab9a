pub mod fat_tools;
