import { type InputHTMLAttributes, type ReactNode, type Ref, useId } from 'react';
import { Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { type Refusal, splitByField } from './refusal';

export const INPUT = 'w-full rounded border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-600 dark:bg-slate-900 aria-[invalid=true]:border-red-600 dark:aria-[invalid=true]:border-red-400';
export const TABLE = 'w-full min-w-[36rem] border-collapse text-sm';
/** `relative`: the sr-only labels inside (absolutely placed) stay in the scroll box instead of widening the page. */
export const TABLE_WRAP = 'relative overflow-x-auto rounded border border-slate-200 dark:border-slate-800';
export const THEAD = 'bg-slate-100 text-left dark:bg-slate-900';
export const TH = 'px-3 py-2 font-semibold';
export const TD = 'px-3 py-2 align-top';
export const ROW = 'border-t border-slate-200 focus:bg-blue-50 dark:border-slate-800 dark:focus:bg-slate-800';
export const MUTED = 'text-slate-600 dark:text-slate-400';

/**
 * What the server refused, in the place the person acted: one sentence, each thing it names, and
 * the field messages the form has no field for (those it has are shown at the field as well).
 */
export function RefusalNotice({ refusal, formFields = [] }: { refusal: Refusal | null; formFields?: string[] }) {
  if (!refusal) return null;
  const rest = splitByField(refusal, formFields).rest;
  const items = [...refusal.items, ...rest];
  // Everything it says is shown at the fields: the alert only points there.
  const atFields = items.length === 0 && Object.keys(refusal.fields).length > 0;
  return (
    <div role="alert" className="rounded border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100">
      <p className="font-medium">{atFields ? 'Not saved: see the marked field.' : refusal.message}</p>
      {items.length > 0 ? <ul className="mt-1 list-disc pl-5">{items.map((i) => <li key={i}>{i}</li>)}</ul> : null}
    </div>
  );
}

export function SavedNotice({ children }: { children: ReactNode }) {
  return <p role="status" className="rounded border border-green-300 bg-green-50 p-2 text-sm text-green-900 dark:border-green-800 dark:bg-green-950 dark:text-green-100">{children}</p>;
}

export function Advisory({ children, title }: { children: ReactNode; title?: string }) {
  return (
    <div className="rounded border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100">
      {title ? <p className="font-medium">{title}</p> : null}
      <div>{children}</div>
    </div>
  );
}

/** A labelled input whose messages are read with it (aria-describedby) and mark it invalid. */
export function Field({ label, messages = [], hint, ref, ...input }: { label: string; messages?: string[]; hint?: ReactNode; ref?: Ref<HTMLInputElement> } & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  const described = [hint ? `${id}-hint` : '', messages.length ? `${id}-err` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium">{label}</label>
      <input ref={ref} id={id} className={INPUT} aria-invalid={messages.length > 0 || undefined} aria-describedby={described} {...input} />
      {hint ? <p id={`${id}-hint`} className={`text-xs ${MUTED}`}>{hint}</p> : null}
      <FieldMessages id={`${id}-err`} messages={messages} />
    </div>
  );
}

export function FieldMessages({ id, messages }: { id?: string; messages: string[] }) {
  if (messages.length === 0) return null;
  return (
    <ul id={id} className="space-y-0.5 text-sm text-red-800 dark:text-red-300">
      {messages.map((m) => <li key={m}>{m}</li>)}
    </ul>
  );
}

/** A set of checkboxes over names (roles, permissions), with the refusal's message for the set. */
export function NameChecks({ legend, names, selected, onChange, messages = [], describe }: {
  legend: string;
  names: string[];
  selected: string[];
  onChange: (next: string[]) => void;
  messages?: string[];
  describe?: (name: string) => string | null;
}) {
  const id = useId();
  return (
    <fieldset className="space-y-1" aria-describedby={messages.length ? `${id}-err` : undefined}>
      <legend className="text-sm font-medium">{legend}</legend>
      <div className="grid grid-cols-1 gap-x-4 gap-y-1 sm:grid-cols-2">
        {names.map((name) => (
          <label key={name} className="flex items-start gap-2 text-sm">
            <input
              type="checkbox"
              className="mt-1"
              checked={selected.includes(name)}
              onChange={(e) => onChange(e.target.checked ? [...selected, name] : selected.filter((n) => n !== name))}
            />
            <span>
              {name}
              {describe?.(name) ? <span className={`block text-xs ${MUTED}`}>{describe(name)}</span> : null}
            </span>
          </label>
        ))}
      </div>
      <FieldMessages id={`${id}-err`} messages={messages} />
    </fieldset>
  );
}

/** A modal dialog (react-aria: focus held inside, Escape closes, focus returns to the opener). */
export function AdminDialog({ title, isOpen, onClose, children, wide }: { title: string; isOpen: boolean; onClose: () => void; children: ReactNode; wide?: boolean }) {
  return (
    <ModalOverlay isOpen={isOpen} onOpenChange={(open) => { if (!open) onClose(); }} isDismissable className="fixed inset-0 z-50 flex items-start justify-center overflow-y-auto bg-black/40 p-4 md:items-center">
      <Modal className={`w-full ${wide ? 'max-w-3xl' : 'max-w-lg'} rounded bg-white p-5 shadow-xl dark:bg-slate-900`}>
        <Dialog className="space-y-4 outline-none">
          <Heading slot="title" className="text-lg font-semibold">{title}</Heading>
          {children}
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}

export function AppliesNextRequest() {
  return <p className={`text-sm ${MUTED}`}>A saved change applies from each caller's next request, on every replica; nobody needs to sign in again.</p>;
}
