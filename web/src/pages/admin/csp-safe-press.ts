/**
 * react-aria's press handling adds a <style> element (touch-action on pressables) to <head> once,
 * unless an element with its id is already there. The page's policy (style-src 'self') refuses an
 * inline <style>, so the browser reports a violation: mark it as present with an inert element,
 * and the pressables that need the rule carry it as classes (PRESSABLE_TOUCH).
 */
const STYLE_ID = 'react-aria-pressable-style';

if (typeof document !== 'undefined' && !document.getElementById(STYLE_ID)) {
  const marker = document.createElement('meta');
  marker.id = STYLE_ID;
  document.head.append(marker);
}

export const PRESSABLE_TOUCH = 'touch-pan-x touch-pan-y touch-pinch-zoom';
