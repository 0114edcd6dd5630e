/**
 * react-aria's press handling would add an inline <style> (touch-action on pressables), which the
 * page's policy refuses; index.html carries the marker that stops it and styles.css the rule.
 * Pressables may also carry the rule as classes.
 */
export const PRESSABLE_TOUCH = 'touch-pan-x touch-pan-y touch-pinch-zoom';
