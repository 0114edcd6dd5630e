import type { ReactNode } from 'react';
import { Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { Button } from '../../components/ui';

/** Asks before a run control acts; the action's own name confirms (e.g. "Cancel run"). */
export function ConfirmDialog({ title, confirm, tone = 'primary', busy, error, onConfirm, onClose, children }: {
  title: string; confirm: string; tone?: 'primary' | 'danger'; busy: boolean; error: string | null;
  onConfirm: () => void; onClose: () => void; children: ReactNode;
}) {
  return (
    <ModalOverlay isOpen onOpenChange={(open) => { if (!open) onClose(); }} isDismissable={!busy} className="fixed inset-0 z-50 flex items-center justify-center bg-black/40 p-4">
      <Modal className="w-full max-w-md rounded bg-white p-6 shadow-xl dark:bg-slate-900">
        <Dialog role="alertdialog" className="outline-none">
          <Heading slot="title" className="mb-3 text-lg font-semibold">{title}</Heading>
          <div className="space-y-2 text-sm">{children}</div>
          {error ? <p role="alert" className="mt-3 rounded bg-red-50 p-2 text-sm text-red-900 dark:bg-red-950 dark:text-red-100">{error}</p> : null}
          <div className="mt-4 flex justify-end gap-2">
            <Button onPress={onClose} isDisabled={busy}>Keep the run</Button>
            <Button tone={tone} onPress={onConfirm} isDisabled={busy}>{busy ? 'Working…' : confirm}</Button>
          </div>
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
