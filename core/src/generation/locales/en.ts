import type { Locale } from "./locale.js";

/** English phrases. */
export const en: Locale = {
  code: "en",
  toneLine: {
    neutral: { physical: "Order directly from this page.", service: "Book directly from this page." },
    luxury: { physical: "Treat yourself.", service: "Treat yourself." },
    budget: { physical: "The price, stated up front.", service: "The price, stated up front." },
    eco: { physical: "Choose with care.", service: "Choose with care." },
    urgency: { physical: "Order today.", service: "Book today." },
    gift: { physical: "A gift idea.", service: "A gift idea." },
  },
  ctaLabel: { physical: "Order now", service: "Book now" },
  detailsTitle: "Details",
  galleryTitle: "More photos",
  galleryAlt: (title, i) => `${title}, photo ${i}`,
  checkoutTitle: { physical: "Place your order", service: "Book your appointment" },
  submitLabel: { physical: "Confirm my order", service: "Confirm my booking" },
  footer: {
    physical: "The details you enter in the order form are sent to the seller with your order. No payment is taken on this page.",
    service: "The details you enter in the booking form are sent to the seller with your booking request. No payment is taken on this page.",
  },
  fieldLabels: { name: "Full name", phone: "Phone number", address: "Address", city: "City", email: "Email", date: "Preferred date", notes: "Notes" },
  ui: {
    deliveryPrice: (p) => `Delivery: ${p}`,
    freeDelivery: "Free delivery",
    save: (p) => `Save ${p}%`,
    requiredHint: "Fields marked * are required.",
    requiredMark: "required",
    choose: "Choose…",
    previewNote: "Preview: the form is disabled until the page is deployed.",
    previewBanner: "Preview",
    confirmationTitle: "Thank you!",
    confirmationText: {
      physical: "We have received your order.",
      service: "We have received your booking request.",
    },
    yourDetails: "Your details",
    back: "Back to the page",
    notFoundTitle: "Page not found",
    notFoundText: "This page does not exist or is no longer available.",
  },
};
