import type { PageText } from './page-text.js';

export const es: PageText = {
  thanks: { title: '¡Gracias!', message: 'Hemos recibido tu mensaje.' },
  formAddress: {
    title: 'Esta es la dirección de un formulario',
    message: 'Esta dirección recibe los envíos de un formulario de un sitio web. Rellena ese formulario para enviar un mensaje.',
  },
  onwards:
    'Hemos recibido tu mensaje. El propietario del formulario quiere enviarte a la dirección de abajo, que este sitio no ha comprobado: continúa solo si esperabas ir allí.',
  goBack: 'Volver',
  backToForm: 'Volver al formulario',
  poweredBy: 'Con la tecnología de Formgate',
  error: { title: 'Algo salió mal', message: 'No se pudo procesar tu envío. Inténtalo de nuevo más tarde.' },
  errors: {
    validation_error: { title: 'No se pudo aceptar tu envío', message: 'Revisa el formulario e inténtalo de nuevo.' },
    captcha_failed: { title: 'No se resolvió el CAPTCHA', message: 'Completa el CAPTCHA y vuelve a enviar el formulario.' },
    origin_not_allowed: { title: 'Este formulario no se puede enviar desde aquí', message: 'Este formulario solo acepta envíos desde su propio sitio web.' },
    not_found: { title: 'Formulario no encontrado', message: 'Este formulario no existe o ya no acepta envíos.' },
    payload_too_large: { title: 'Envío demasiado grande', message: 'El envío es más grande de lo que acepta este formulario.' },
    form_closed: { title: 'Este formulario está cerrado', message: 'Este formulario no acepta envíos. No se guardó nada.' },
    quota_exceeded: { title: 'Tu envío no fue aceptado', message: 'Este formulario no admite más envíos por ahora. No se guardó nada.' },
    rate_limited: { title: 'Demasiados envíos', message: 'Espera un momento e inténtalo de nuevo.' },
    unavailable: { title: 'Inténtalo de nuevo en un momento', message: 'Tu envío no se ha guardado. Inténtalo de nuevo en breve.' },
  },
};
