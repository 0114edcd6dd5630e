import { Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { Button } from '../components/ui';
import { SHORTCUTS } from './shortcuts';

export default function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  return (
    <ModalOverlay isOpen onOpenChange={(open) => { if (!open) onClose(); }} isDismissable className="fixed inset-0 z-50 flex items-center justify-center bg-black/40">
      <Modal className="rounded bg-white p-6 shadow-xl dark:bg-slate-900">
        <Dialog className="outline-none">
          <Heading slot="title" className="mb-3 text-lg font-semibold">Keyboard shortcuts</Heading>
          <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-2 text-sm">
            {SHORTCUTS.map(([key, what]) => (
              <div key={key} className="contents">
                <dt><kbd className="rounded border px-1.5 font-mono">{key}</kbd></dt>
                <dd>{what}</dd>
              </div>
            ))}
          </dl>
          <Button className="mt-4" onPress={onClose}>Close</Button>
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
