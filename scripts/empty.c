/* Placeholder translation unit for a folder library that has no sources yet. */
typedef int ls_empty_translation_unit;
