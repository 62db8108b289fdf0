import type { PageText } from './page-text.js';

export const uk: PageText = {
  thanks: { title: 'Дякуємо!', message: 'Ваше повідомлення отримано.' },
  formAddress: {
    title: 'Це адреса форми',
    message: 'Ця адреса приймає надсилання форми на вебсайті. Заповніть цю форму, щоб надіслати повідомлення.',
  },
  goBack: 'Назад',
  backToForm: 'Повернутися до форми',
  poweredBy: 'Працює на Formgate',
  error: { title: 'Щось пішло не так', message: 'Не вдалося обробити ваше надсилання. Спробуйте пізніше.' },
  errors: {
    validation_error: { title: 'Не вдалося прийняти ваше надсилання', message: 'Перевірте форму та спробуйте ще раз.' },
    captcha_failed: { title: 'CAPTCHA не пройдено', message: 'Пройдіть CAPTCHA та надішліть форму ще раз.' },
    origin_not_allowed: { title: 'Цю форму не можна надіслати звідси', message: 'Ця форма приймає надсилання лише зі свого сайту.' },
    not_found: { title: 'Форму не знайдено', message: 'Ця форма не існує або більше не приймає надсилань.' },
    payload_too_large: { title: 'Надто велике надсилання', message: 'Надсилання більше, ніж приймає ця форма.' },
    rate_limited: { title: 'Забагато надсилань', message: 'Зачекайте трохи та спробуйте ще раз.' },
    unavailable: { title: 'Спробуйте за хвилину', message: 'Ваше надсилання не збережено. Спробуйте ще раз незабаром.' },
  },
};
